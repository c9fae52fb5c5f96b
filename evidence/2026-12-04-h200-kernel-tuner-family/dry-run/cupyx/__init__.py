def get_runtime_info():
    return "Device 0 Name: CPU stand-in (H200-like)\nDevice 0 PCI Bus ID: 0000:00:00.0\n"
