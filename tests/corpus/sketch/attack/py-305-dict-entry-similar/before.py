DEFAULTS = {
    "host": "localhost",
    "port": 8080,
    "debug": False,
}
