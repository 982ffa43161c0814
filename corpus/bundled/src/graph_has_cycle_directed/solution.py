def has_cycle(n, edges):
    indegree = [0] * n
    adj = [[] for _ in range(n)]
    for u, v in edges:
        adj[u].append(v)
        indegree[v] += 1
    stack = []
    for node in range(n):
        if indegree[node] == 0:
            stack.append(node)
    removed = 0
    while stack:
        node = stack.pop()
        removed += 1
        for nxt in adj[node]:
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                stack.append(nxt)
    return removed < n
