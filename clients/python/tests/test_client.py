"""The Python client against a real server (tests/server.py): one server and one worker for the file.

Run from the checkout: python3 -m unittest discover -s clients/python/tests
"""

import csv
import io
import typing
import unittest

from server import Server  # also puts clients/python on sys.path

from assay_client import AssayError, Client, calibration_table, to_csv
from assay_client import types as t

server: Server


def setUpModule() -> None:
    global server
    server = Server()
    server.start_worker()


def tearDownModule() -> None:
    server.stop()


RUN = "py-run"
ANSWERS = [
    {"id": "a0", "task": "describe", "rubric": "farmyard-54",
     "text": "A bright cartoon farmyard with a large red barn on the left, a green tractor, pigs in the mud and a blue pond with ducks."},
    {"id": "a1", "task": "describe", "rubric": "farmyard-54", "text": "A red barn and a farmer on a tractor; sheep by the fence."},
    {"id": "a2", "task": "describe", "rubric": "farmyard-54", "text": "A city street at night with tall buildings."},
]


def assert_shape(case: unittest.TestCase, value: object, td: type) -> None:
    """The keys of a response are its TypedDict's: every required one, no other."""
    case.assertIsInstance(value, dict)
    keys = set(typing.cast(dict, value))
    case.assertLessEqual(set(td.__required_keys__), keys, td.__name__)  # type: ignore[attr-defined]
    case.assertLessEqual(keys, set(td.__required_keys__) | set(td.__optional_keys__), td.__name__)  # type: ignore[attr-defined]


class Flows(unittest.TestCase):
    """In order (unittest sorts by name): upload, grade, grade the run, labels and reports."""

    assay: Client
    first: t.Grade

    @classmethod
    def setUpClass(cls) -> None:
        admin = Client(server.url, key=server.admin_key)
        created = admin.create_key(["write"], name="python client test")
        assert created["scopes"] == ["write"] and created["key"].startswith(f"assay_{created['prefix']}_")
        cls.assay = Client(server.url, key=created["key"])

    def test_1_errors_come_back_as_assay_error(self) -> None:
        with self.assertRaises(AssayError) as e:
            Client(server.url, key="assay_00000000_" + "x" * 43).leaderboard()
        self.assertEqual((e.exception.status, e.exception.code), (401, "unauthorized"))
        with self.assertRaises(AssayError) as e:
            self.assay.upload_answers([{"id": "b1", "task": "nope", "text": "x"}], run=RUN, model="model-py")
        self.assertEqual((e.exception.status, e.exception.code), (400, "bad_input"))
        self.assertTrue(e.exception.message.startswith("body:1: task:"), e.exception.message)
        # All or nothing: the bad upload stored no run.
        with self.assertRaises(AssayError) as e:
            self.assay.progress(RUN)
        self.assertEqual(e.exception.status, 404)

    def test_2_upload_answers(self) -> None:
        up = self.assay.upload_answers(ANSWERS, run=RUN, model="model-py")
        assert_shape(self, up, t.AnswerImport)
        self.assertEqual((up["imported"], up["unchanged"], len(up["answerIds"])), (3, 0, 3))
        self.assertEqual([(r["name"], r["model"], r["created"]) for r in up["runs"]], [(RUN, "model-py", True)])
        page = self.assay.list_answers(run=RUN)
        self.assertEqual([a["externalId"] for a in page["items"]], ["a0", "a1", "a2"])

    def test_3_grade_one_then_the_run(self) -> None:
        a0 = self.assay.list_answers(run=RUN, limit=1)["items"][0]
        g = self.assay.grade(answer_id=a0["id"], judge="lexical")
        assert_shape(self, g, t.Grade)
        self.assertEqual((g["answerId"], g["status"], g["judge"]["id"]), (a0["id"], "ok", "lexical"))
        self.assertEqual(len(g["items"]), 17)
        type(self).first = g

        enq = self.assay.grade_run(RUN, judge="lexical")
        assert_shape(self, enq, t.GradingEnqueued)
        self.assertEqual((enq["total"], enq["alreadyGraded"], enq["jobs"]), (3, 1, 2))
        done = self.assay.wait_for_grading(RUN, judge="lexical", poll=0.2, timeout=180)
        assert_shape(self, done, t.GradingProgress)
        self.assertEqual((done["total"], done["failed"], done["remaining"]), (3, 0, 0), server.worker_log)

    def test_4_leaderboard_is_the_mean_f1_of_the_grades(self) -> None:
        page = self.assay.list_grades(run=RUN, judge="lexical", limit=2)
        assert_shape(self, page, t.GradePage)
        self.assertEqual((page["total"], len(page["items"])), (3, 2))
        grades = list(self.assay.iter_grades(run=RUN, judge="lexical", limit=2))
        self.assertEqual(sorted(g["answerId"] for g in grades), sorted(a["id"] for a in self.assay.list_answers(run=RUN)["items"]))
        self.assertEqual(self.assay.get_grade(self.first["gradeId"])["f1"], self.first["f1"])
        f1 = [g["f1"] for g in grades]
        board = self.assay.leaderboard(run=RUN, judge="lexical")
        assert_shape(self, board, t.Leaderboard)
        row = next(r for r in board["rows"] if r["model"] == "model-py" and r["sizeBucket"] == "all")
        self.assertEqual(row["descriptions"], 3)
        self.assertAlmostEqual(row["f1"], sum(f1) / 3, places=12)
        table = list(csv.DictReader(io.StringIO(self.assay.report_csv("leaderboard", run=RUN, judge="lexical"))))
        self.assertAlmostEqual(float(next(r for r in table if r["sizeBucket"] == "all")["f1"]), row["f1"], places=12)

    def test_5_calibration_report_into_a_table(self) -> None:
        # Two annotators agree with the judge on every item of a0 but the first, where both say otherwise.
        judge = [i["verdict"] for i in self.first["items"]]
        human = [("missing" if v == "correct" else "correct") if k == 0 else v for k, v in enumerate(judge)]
        rows = [{"answer": "a0", "run": RUN, "item": it["id"], "annotator": who, "label": human[k]}
                for who in ("ann-1", "ann-2") for k, it in enumerate(self.first["items"])]
        imported = self.assay.upload_labels(rows)
        self.assertEqual((imported["inserted"], imported["runs"]), (34, [RUN]))

        report = self.assay.calibration_report(run=RUN, judge="lexical")
        assert_shape(self, report, t.StoredCalibrationReport)
        self.assertEqual(report["humans"], ["ann-1", "ann-2"])
        table = calibration_table(report)
        lexical = next(r for r in table if r["judge"] == "lexical")
        self.assertEqual(lexical["units"], 17)
        self.assertAlmostEqual(lexical["agreement"], 16 / 17, places=12)
        self.assertAlmostEqual(lexical["kappa"], self.assay.stats_kappa(judge, human)["kappa"], places=12)
        parsed = list(csv.DictReader(io.StringIO(to_csv(table))))
        self.assertEqual(parsed[0]["judge"], table[0]["judge"])
        self.assertEqual(list(parsed[0]), list(table[0]))

    def test_6_stats_and_calibrate_from_the_body(self) -> None:
        # SAS / statsmodels table [[0,4,1],[0,8,0],[0,1,5]]: kappa 0.4842.
        a = [0] * 5 + [1] * 8 + [2] * 6
        b = [1, 1, 1, 1, 2] + [1] * 8 + [1, 2, 2, 2, 2, 2]
        k = self.assay.stats_kappa(a, b)
        assert_shape(self, k, t.StatsKappa)
        self.assertAlmostEqual(k["kappa"], 0.4842, places=4)
        self.assertEqual(k["n"], 19)
        # Humans agree on six answers; the judge on four: p_o = 4/6, p_e = 1/2, kappa = 1/3.
        humans = ["pass", "pass", "pass", "fail", "fail", "fail"]
        judge = ["pass", "pass", "fail", "fail", "fail", "pass"]
        labels = [row for i, h in enumerate(humans) for row in (
            {"answer": f"u{i}", "rater": "h1", "kind": "human", "label": h},
            {"answer": f"u{i}", "rater": "h2", "kind": "human", "label": h},
            {"answer": f"u{i}", "rater": "j1", "kind": "judge", "label": judge[i]},
        )]
        r = self.assay.calibrate(labels, scale="binary", seed=1)
        assert_shape(self, r, t.CalibrationReport)
        row = calibration_table(r)[0]
        self.assertEqual((row["judge"], row["units"]), ("j1", 6))
        self.assertAlmostEqual(row["agreement"], 4 / 6, places=12)
        self.assertAlmostEqual(row["kappa"], 1 / 3, places=12)


if __name__ == "__main__":
    unittest.main()
