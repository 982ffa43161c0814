def _keep(c):
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or ("0" <= c <= "9")


def is_palindrome(s):
    i = 0
    j = len(s) - 1
    while i < j:
        if not _keep(s[i]):
            i += 1
            continue
        if not _keep(s[j]):
            j -= 1
            continue
        if s[i].lower() != s[j].lower():
            return False
        i += 1
        j -= 1
    return True
