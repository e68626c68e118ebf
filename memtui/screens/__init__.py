"""The screens of the app: the main workspace, the root picker and the dialogs."""
