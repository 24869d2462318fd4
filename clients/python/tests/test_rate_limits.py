"""grade_run's rate limits on the wire: a number sets the stored limit, CLEAR sends null (the API clears
it), and leaving it out (or None, "not given" as everywhere in the client) keeps what is stored.

Before, grade_run dropped None and had no way to send null: a stored limit could not be cleared.
No assay server here: a local HTTP server records the bodies the client sends.
"""

import http.server
import json
import threading
import unittest

import server  # noqa: F401 (puts clients/python on sys.path)

from assay_client import CLEAR, Client

ENQUEUED = {"gradingRunId": 1, "total": 0, "skipped": {"task": 0, "answerError": 0, "noText": 0, "noRubric": 0}, "alreadyGraded": 0, "jobs": 0}


class Recorder(http.server.BaseHTTPRequestHandler):
    bodies: list = []

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("content-length") or 0)
        type(self).bodies.append((self.path, json.loads(self.rfile.read(n))))
        out = json.dumps(ENQUEUED).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: object) -> None:
        pass


class RateLimits(unittest.TestCase):
    def setUp(self) -> None:
        Recorder.bodies = []
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.assay = Client(f"http://127.0.0.1:{self.httpd.server_address[1]}", key="assay_x_y")

    def tearDown(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def test_set_clear_and_keep_are_three_different_bodies(self) -> None:
        self.assay.grade_run("my run", judge="claude", rpm=50, tpm=20000)
        self.assay.grade_run("my run", judge="claude", tpm=CLEAR)
        self.assay.grade_run("my run", judge="claude", rpm=CLEAR, tpm=CLEAR)
        self.assay.grade_run("my run", judge="claude")
        self.assay.grade_run("my run", judge="claude", rpm=None, tpm=None)
        self.assertEqual(
            Recorder.bodies,
            [
                ("/api/runs/my%20run/grade", {"judge": "claude", "rpm": 50, "tpm": 20000}),
                ("/api/runs/my%20run/grade", {"judge": "claude", "tpm": None}),
                ("/api/runs/my%20run/grade", {"judge": "claude", "rpm": None, "tpm": None}),
                ("/api/runs/my%20run/grade", {"judge": "claude"}),
                ("/api/runs/my%20run/grade", {"judge": "claude"}),
            ],
        )

    def test_clear_reads_as_clear(self) -> None:
        self.assertEqual(repr(CLEAR), "CLEAR")


if __name__ == "__main__":
    unittest.main()
