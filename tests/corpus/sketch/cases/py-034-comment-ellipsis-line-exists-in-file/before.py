"""Project settings for the docs build."""

import os

project = "lancet"
author = "lancet contributors"

# Extensions, in load order. Add your own after the built-in ones:
#
#     extensions = [
#         "sphinx.ext.autodoc",
#         # ...
#     ]
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

html_theme = os.environ.get("DOCS_THEME", "alabaster")
html_static_path = ["_static"]
html_title = f"{project} documentation"


def setup(app):
    app.add_css_file("custom.css")
