def spiral_order(matrix):
    result = []
    if not matrix or not matrix[0]:
        return result
    top = 0
    bottom = len(matrix) - 1
    left = 0
    right = len(matrix[0]) - 1
    while top <= bottom and left <= right:
        for c in range(left, right + 1):
            result.append(matrix[top][c])
        for r in range(top + 1, bottom + 1):
            result.append(matrix[r][right])
        if top < bottom:
            for c in range(right - 1, left - 1, -1):
                result.append(matrix[bottom][c])
        if left < right:
            for r in range(bottom - 1, top, -1):
                result.append(matrix[r][left])
        top += 1
        bottom -= 1
        left += 1
        right -= 1
    return result
