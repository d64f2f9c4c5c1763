"""Tests of nomercy.sim: the simulator, its backends, results files, stats and reports."""
