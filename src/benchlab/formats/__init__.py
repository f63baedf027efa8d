"""Formats: other tools' outputs read (parsers/, importing) and ours written (exporters/).
"""
