"""Grading one submission: hardware facts, the two-step build, the Check tests, the benchmark, the grade and calibration."""
