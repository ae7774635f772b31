import Terminal
