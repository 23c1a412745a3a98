"""Persisted scheduler state."""

import json
import logging
import os

log = logging.getLogger(__name__)

STATE_FILE = os.path.expanduser("~/.cache/scheduler/state.json")


def load_state(path=STATE_FILE):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    if not text:
        return None
    return json.loads(text)


def save_state(state, path=STATE_FILE):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=2, sort_keys=True)
    os.replace(tmp, path)
