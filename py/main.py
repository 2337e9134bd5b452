"""Entry script: the page's Python starts here (see index.html)."""

from app.controller import Controller

controller = Controller()
controller.boot()
