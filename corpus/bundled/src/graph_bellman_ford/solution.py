def bellman_ford(n, edges, src):
    dist = [None] * n
    dist[src] = 0
    for _ in range(n - 1):
        changed = False
        for u, v, w in edges:
            if dist[u] is None:
                continue
            if dist[v] is None or dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                changed = True
        if not changed:
            break
    for u, v, w in edges:
        if dist[u] is not None and dist[u] + w < dist[v]:
            return None
    return dist
