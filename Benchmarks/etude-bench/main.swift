import MIDIFile
print("bench placeholder")
