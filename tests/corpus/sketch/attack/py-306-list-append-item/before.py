INSTALLED = [
    "django.contrib.admin",
    "app_a",
    "app_b",
]
