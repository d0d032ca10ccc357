"""Spatial structures over the records: the k-d tree (with deletions, and the static nearest-two
queries), the tree-answered group steps, the most distant pair, close pairs and the minimum spanning tree."""
