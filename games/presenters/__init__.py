"""View models and render contexts for the game screens (and the layout of
the operator dashboard's charts).

Views and websocket consumers both build what they render here, from stored
rounds and the services' answers, so a page and its live updates never
disagree. Presenters read nothing from the database themselves (selectors
do), and hold no game rules (the core and the services do).
"""
