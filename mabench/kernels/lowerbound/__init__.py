"""Lower bounds on the optimal SSE: the pair and cover bounds and column generation for the LP bound."""
