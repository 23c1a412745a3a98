import pytest


@pytest.fixture
def client():
    return make_client()


@pytest.fixture
def db():
    return make_db()
