"""The research graph's nodes, one module per node (named as in docs/architecture.md §1)."""
