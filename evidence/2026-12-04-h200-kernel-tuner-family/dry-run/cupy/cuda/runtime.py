def driverGetVersion():
    return 13000


def getDeviceProperties(device):
    return {"name": b"CPU stand-in (H200-like)", "uuid": bytes(16)}


def getDeviceCount():
    return 1
