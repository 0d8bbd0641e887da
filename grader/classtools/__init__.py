"""Workflows for a class and a course: batches (local and Slurm), hand-in archives, the student tree's release and its leak check, the Gradescope package and its daily cap, a new lab's scaffold."""
