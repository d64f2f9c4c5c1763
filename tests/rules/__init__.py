"""Scenario tests of RULES.md, one or more per rule ID (see docs/rules-coverage.md)."""
