# Shortcuts for tasks.py (which needs only python3): `make lab`, `make test`, …
PYTHON ?= python3

.PHONY: lab test bench book dashboard slides clean
lab test bench book dashboard slides clean:
	$(PYTHON) tasks.py $@
