"""Performance benchmarks for ragspine; see bench/README.md. Not part of the installed package."""
