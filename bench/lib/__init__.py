"""Shared parts of the benchmark scripts: compositor start-up, process-tree accounting, reports and plots."""
