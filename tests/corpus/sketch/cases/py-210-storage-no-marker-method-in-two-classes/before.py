"""Blob stores used by the asset pipeline."""

import os
import shutil
from pathlib import Path

import boto3


class StoreError(Exception):
    pass


class LocalStore:
    def __init__(self, root):
        self.root = Path(root)
        self._closed = False

    def path(self, key):
        return self.root / key

    def exists(self, key):
        return self.path(key).is_file()

    def __contains__(self, key):
        return self.exists(key)

    def put(self, key, src):
        dest = self.path(key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)

    def close(self):
        self._closed = True

    def __repr__(self):
        return f"LocalStore({str(self.root)!r})"


class S3Store:
    def __init__(self, bucket, prefix=""):
        self.bucket = bucket
        self.prefix = prefix
        self._client = boto3.client("s3")
        self._closed = False

    def exists(self, key):
        try:
            self._client.head_object(Bucket=self.bucket, Key=self.prefix + key)
        except self._client.exceptions.ClientError:
            return False
        return True

    def __contains__(self, key):
        return self.exists(key)

    def put(self, key, src):
        self._client.upload_file(os.fspath(src), self.bucket, self.prefix + key)

    def close(self):
        self._client.close()
        self._closed = True
