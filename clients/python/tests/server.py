"""A real assay server for the tests: `npm start`'s entry (bin/launch.mjs main) on port 0 with a
fresh data directory, and one `assay worker` grading its queue. The URL and the admin key are read
from the server's banner; stop() ends both processes and removes the directory.

ASSAY_NODE names the node binary (default: node on PATH); ASSAY_ROOT the checkout (default: the one
holding this file)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(os.environ.get("ASSAY_ROOT") or Path(__file__).resolve().parents[3])
NODE = os.environ.get("ASSAY_NODE") or shutil.which("node") or "node"
# Start-up migrates and seeds the bundled examples; a loaded CI machine can take a while.
START_TIMEOUT = float(os.environ.get("ASSAY_START_TIMEOUT", "240"))

sys.path.insert(0, str(ROOT / "clients" / "python"))


class Server:
    def __init__(self) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="assay-py-client-")
        # No provider keys: the default judge is the offline lexical baseline, nothing leaves the machine.
        self.env = {
            **os.environ,
            "ASSAY_DATA_DIR": self.data_dir,
            "PORT": "0",
            "HOST": "127.0.0.1",
            "DATABASE_URL": "",
            "ANTHROPIC_API_KEY": "",
            "OPENAI_API_KEY": "",
            "OPENAI_BASE_URL": "",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "",
        }
        self.out = ""
        self.worker_log = ""
        self.server = subprocess.Popen(
            [NODE, str(ROOT / "bin" / "launch.mjs"), "main"],
            cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.worker: "subprocess.Popen[str] | None" = None
        listening = threading.Event()

        def read() -> None:
            assert self.server.stdout
            for line in self.server.stdout:
                self.out += line
                if "listening on" in line:
                    listening.set()
            listening.set()

        threading.Thread(target=read, daemon=True).start()
        if not listening.wait(START_TIMEOUT) or self.server.poll() is not None:
            self.stop()
            raise RuntimeError(f"the server did not start:\n{self.out}")
        self.url = re.search(r"listening on (http://\S+)", self.out).group(1)  # type: ignore[union-attr]
        self.admin_key = re.search(r"^\s+(assay_[0-9a-f]{8}_\S+)$", self.out, re.M).group(1)  # type: ignore[union-attr]

    def start_worker(self) -> None:
        """A grading worker reaching the server's database through its data directory."""
        # Its log goes to a file: a pipe nobody reads could fill and stall the worker.
        self._worker_err = tempfile.TemporaryFile(mode="w+")
        self.worker = subprocess.Popen(
            [NODE, str(ROOT / "bin" / "launch.mjs"), "cli/main", "worker", "--concurrency", "2", "--poll-ms", "100"],
            cwd=ROOT, env=self.env, stdout=subprocess.DEVNULL, stderr=self._worker_err, text=True,
        )

    def stop(self) -> None:
        for p in (self.worker, self.server):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.worker:
            self._worker_err.seek(0)
            self.worker_log = self._worker_err.read()
            self._worker_err.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)

