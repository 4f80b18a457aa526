print("pg")
