"""The main window as a frame: it builds the actions, menus, toolbar, tabs and status from what the features declare."""
