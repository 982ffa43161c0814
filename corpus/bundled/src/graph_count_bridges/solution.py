def count_bridges(n, edges):
    adj = [[] for _ in range(n)]
    for i, (u, v) in enumerate(edges):
        adj[u].append((v, i))
        adj[v].append((u, i))
    disc = [-1] * n
    low = [0] * n
    timer = 0
    bridges = 0
    for root in range(n):
        if disc[root] != -1:
            continue
        disc[root] = low[root] = timer
        timer += 1
        stack = [(root, -1, 0)]
        while stack:
            node, via, k = stack.pop()
            if k < len(adj[node]):
                stack.append((node, via, k + 1))
                nxt, eid = adj[node][k]
                if eid == via:
                    continue
                if disc[nxt] == -1:
                    disc[nxt] = low[nxt] = timer
                    timer += 1
                    stack.append((nxt, eid, 0))
                elif disc[nxt] < low[node]:
                    low[node] = disc[nxt]
            elif via != -1:
                u, v = edges[via]
                parent = u if v == node else v
                if low[node] < low[parent]:
                    low[parent] = low[node]
                if low[node] > disc[parent]:
                    bridges += 1
    return bridges
