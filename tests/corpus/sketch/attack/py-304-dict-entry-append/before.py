DEFAULTS = {
    "host": "localhost",
    "port": 8080,
    "debug": False,
}

OTHER = 1
