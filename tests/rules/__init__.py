"""Scenario tests of docs/rules.md, one or more per rule ID (see docs/rules-coverage.md)."""
