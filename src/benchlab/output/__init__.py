"""Output: the table as data, its figures' marks and text, sweeps, and the HTML report.
"""
