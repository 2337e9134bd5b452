"""Bare PyScript page: signal that Python is up, and nothing else."""

from pyscript import document

document.documentElement.dataset.ready = "1"
