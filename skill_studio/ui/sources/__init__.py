"""Skills from repositories and folders in the window: the Sources tab and the add dialog."""
