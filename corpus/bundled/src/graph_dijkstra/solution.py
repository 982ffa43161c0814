import heapq


def dijkstra(n, edges, src):
    adj = [[] for _ in range(n)]
    for u, v, w in edges:
        adj[u].append((v, w))
    dist = [-1] * n
    heap = [(0, src)]
    while heap:
        d, node = heapq.heappop(heap)
        if dist[node] != -1:
            continue
        dist[node] = d
        for nxt, w in adj[node]:
            if dist[nxt] == -1:
                heapq.heappush(heap, (d + w, nxt))
    return dist
