"""The computer: folders and files, scratch space, instances, system libraries, sound."""
