"""The research graph's nodes, one module per node and named as the node (docs/architecture.md
§1). A node reads state, calls services from the other packages and returns its update; it
never calls another node.
"""
