def josephus_order(n, k):
    people = list(range(1, n + 1))
    order = []
    index = 0
    while len(people) > 0:
        index = (index + k - 1) % len(people)
        order.append(people[index])
        people.pop(index)
    return order
