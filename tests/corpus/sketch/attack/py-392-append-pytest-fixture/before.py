import pytest


@pytest.fixture
def client():
    return make_client()
