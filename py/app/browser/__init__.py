"""The browser side's only code that imports the browser (js, pyscript): the controller and
the few modules it uses to wire events, draw into the page, keep timers and use storage.
Everything else in py/app is pure Python, tested in CPython."""
