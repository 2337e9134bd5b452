"""How the computer players judge Gilgiti positions (placeholder until written)."""
