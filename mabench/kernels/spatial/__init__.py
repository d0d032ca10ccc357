"""Spatial structures over the records: the k-d tree (with deletions, and the static nearest-two
queries), the tree-answered group steps, the shell order (the farthest from a point), the most
distant pair, close pairs and the minimum spanning tree."""
