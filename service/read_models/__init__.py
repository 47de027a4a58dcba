"""read_models"""
