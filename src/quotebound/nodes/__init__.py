"""The research graph's nodes, one module per node (named as in DESIGN §1)."""
