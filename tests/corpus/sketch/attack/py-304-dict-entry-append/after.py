DEFAULTS = {
    "host": "localhost",
    "port": 8080,
    "debug": False,
    "workers": 4,
}

OTHER = 1
