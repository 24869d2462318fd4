"""A small client for the assay HTTP API: standard library only (urllib, json).

    from assay_client import Client
    assay = Client("http://127.0.0.1:8787", key="assay_...")
    assay.upload_answers(rows, run="my-run", model="my-model")

Responses are plain dicts typed with the TypedDicts of assay_client.types (checked against the
server's OpenAPI document by the project's tests). Errors raise AssayError(code, message, status).
"""

from .client import CLEAR, AssayError, Client
from .tables import calibration_table, to_csv
from . import types

__all__ = ["CLEAR", "AssayError", "Client", "calibration_table", "to_csv", "types"]
