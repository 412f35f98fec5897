"""Reports over a run: terminal tables, Markdown, JUnit XML, model comparison."""
