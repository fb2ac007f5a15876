"""Model: the optional chat model (``chat``) and every prompt it is sent (``prompts``).

May import: the foundation modules.
"""
