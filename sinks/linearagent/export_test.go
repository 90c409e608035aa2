package linearagent

// MemoPath is memoPath, for the tests outside the package.
var MemoPath = memoPath
