"""HTTP session helpers for the billing client."""

import json
import logging
import time

import requests

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 10
USER_AGENT = "billing-client/2.3"


class RetryPolicy:
    """How often and how long to retry a failed request."""

    def __init__(self, retries=3, backoff=0.5):
        self.retries = retries
        self.backoff = min(backoff, 30.0)

    def delays(self):
        delay = self.backoff
        for _ in range(self.retries):
            yield delay
            delay *= 2


class Session:
    """A requests session with auth, retries and JSON decoding."""

    def __init__(self, base_url, token, policy=None):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.policy = policy or RetryPolicy()
        self._http = requests.Session()
        self._http.headers["User-Agent"] = USER_AGENT

    def _url(self, path):
        return f"{self.base_url}/{path.lstrip('/')}"

    def request(self, method, path, **kwargs):
        kwargs.setdefault("timeout", DEFAULT_TIMEOUT)
        headers = kwargs.pop("headers", {})
        headers["Authorization"] = f"Bearer {self.token}"
        for delay in self.policy.delays():
            resp = self._http.request(method, self._url(path), headers=headers, **kwargs)
            if resp.status_code < 500:
                break
            log.warning("retrying %s %s in %.1fs", method, path, delay)
            time.sleep(delay)
        resp.raise_for_status()
        return resp

    def get_json(self, path, **params):
        resp = self.request("GET", path, params=params)
        if not resp.content:
            return None
        return resp.json()

    def close(self):
        self._http.close()


def load_token(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    return data.get("token")
