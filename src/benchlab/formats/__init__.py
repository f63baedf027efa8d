"""Formats: other tools' outputs read (parsers/, importing) and the one table of every
format (registry.py); ours are written by output/exporters/.
"""
