"""Runtime settings for the worker."""

import os

BROKER_URL = os.environ.get("BROKER_URL", "redis://localhost:6379/0")
RESULT_BACKEND = BROKER_URL
TASK_TIME_LIMIT = 300
RETRIES = 3
RETRY_BACKOFF = 2.0

LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

QUEUES = {
    "default": {"priority": 5},
    "mail": {"priority": 3},
    "reports": {"priority": 1},
}