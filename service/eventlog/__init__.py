"""eventlog"""
