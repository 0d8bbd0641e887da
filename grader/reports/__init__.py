"""What a grade shows people: the score table and Gradescope's results.json, the HTML report, plots and hints."""
