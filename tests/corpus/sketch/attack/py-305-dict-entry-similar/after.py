DEFAULTS = {
    "host": "localhost",
    "port": 9090,
    "debug": False,
}
